<?php
/**
 * The knowledge base: `rtac_kb` posts, a question as the title and the answer
 * as the content, with a language and a "pinned" flag.
 *
 * Pinned entries travel with every turn in their language; all published
 * entries are also synced to the sidecar like any page.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Knowledge_Base {

	const NONCE_ACTION = 'rtac_kb_meta';
	const NONCE_FIELD  = 'rtac_kb_meta_nonce';

	public function register(): void {
		register_post_type(
			Rtac_Registry::POST_TYPE_KB,
			// Answers reach visitors through the assistant only, never as pages.
			Rtac_Admin::post_type_args(
				array(
					'labels'          => array(
						'name'               => __( 'Knowledge base', 'rtac' ),
						'singular_name'      => __( 'Knowledge base entry', 'rtac' ),
						'add_new'            => __( 'Add entry', 'rtac' ),
						'add_new_item'       => __( 'Add knowledge base entry', 'rtac' ),
						'edit_item'          => __( 'Edit knowledge base entry', 'rtac' ),
						'new_item'           => __( 'New knowledge base entry', 'rtac' ),
						'search_items'       => __( 'Search knowledge base', 'rtac' ),
						'not_found'          => __( 'No entries yet.', 'rtac' ),
						'not_found_in_trash' => __( 'No entries in the trash.', 'rtac' ),
						'all_items'          => __( 'Knowledge base', 'rtac' ),
					),
					'description'     => __( 'Questions and answers the assistant may use.', 'rtac' ),
					// Pinned answers shape every reply, so editing them is an editor's job.
					'capability_type' => 'page',
					'map_meta_cap'    => true,
					'supports'        => array( 'title', 'editor' ),
				)
			)
		);
		register_post_meta(
			Rtac_Registry::POST_TYPE_KB,
			Rtac_Registry::META_KB_LANG,
			array(
				'type'              => 'string',
				'single'            => true,
				'sanitize_callback' => array( 'Rtac_Language', 'normalize' ),
				'auth_callback'     => array( __CLASS__, 'can_edit_meta' ),
			)
		);
		register_post_meta(
			Rtac_Registry::POST_TYPE_KB,
			Rtac_Registry::META_KB_PINNED,
			array(
				'type'          => 'boolean',
				'single'        => true,
				'auth_callback' => array( __CLASS__, 'can_edit_meta' ),
			)
		);
	}

	public static function can_edit_meta( $allowed, $meta_key, $post_id ): bool {
		return current_user_can( 'edit_post', (int) $post_id );
	}

	public function add_meta_box(): void {
		add_meta_box( 'rtac-kb-meta', __( 'Assistant', 'rtac' ), array( $this, 'render_meta_box' ), Rtac_Registry::POST_TYPE_KB, 'side' );
	}

	public function render_meta_box( WP_Post $post ): void {
		$lang   = (string) get_post_meta( $post->ID, Rtac_Registry::META_KB_LANG, true );
		$pinned = (bool) get_post_meta( $post->ID, Rtac_Registry::META_KB_PINNED, true );
		$langs  = Rtac_Language::available();
		if ( '' !== $lang && ! in_array( $lang, $langs, true ) ) {
			$langs[] = $lang;
		}
		wp_nonce_field( self::NONCE_ACTION, self::NONCE_FIELD );
		echo '<p><label for="rtac-kb-lang">' . esc_html__( 'Language', 'rtac' ) . '</label><br />';
		echo '<select id="rtac-kb-lang" name="rtac_kb_lang">';
		echo '<option value="">' . esc_html__( 'Site language', 'rtac' ) . '</option>';
		foreach ( $langs as $code ) {
			echo '<option value="' . esc_attr( $code ) . '"' . selected( $lang, $code, false ) . '>' . esc_html( $code ) . '</option>';
		}
		echo '</select></p>';
		echo '<p><label><input type="checkbox" name="rtac_kb_pinned" value="1"' . checked( $pinned, true, false ) . ' /> ';
		esc_html_e( 'Pinned: send with every answer in this language', 'rtac' );
		echo '</label></p>';
		echo '<p class="description">' . esc_html__( 'Pin short, authoritative facts such as prices and policies. Everything else is found by search when it is relevant.', 'rtac' ) . '</p>';
	}

	/** save_post_rtac_kb: capability → nonce → unslash → store. */
	public function save_meta( int $post_id ): void {
		if ( ( defined( 'DOING_AUTOSAVE' ) && DOING_AUTOSAVE ) || wp_is_post_revision( $post_id ) ) {
			return;
		}
		if ( ! current_user_can( 'edit_post', $post_id ) ) {
			return;
		}
		// Programmatic saves (the unanswered report, imports) carry no nonce and set the meta themselves.
		if ( ! isset( $_POST[ self::NONCE_FIELD ] ) || ! wp_verify_nonce( sanitize_key( wp_unslash( $_POST[ self::NONCE_FIELD ] ) ), self::NONCE_ACTION ) ) {
			return;
		}
		$lang = Rtac_Language::normalize( isset( $_POST['rtac_kb_lang'] ) ? sanitize_text_field( wp_unslash( $_POST['rtac_kb_lang'] ) ) : '' );
		self::store_meta( $post_id, $lang, ! empty( $_POST['rtac_kb_pinned'] ) );
	}

	public static function store_meta( int $post_id, string $lang, bool $pinned ): void {
		if ( '' !== $lang ) {
			update_post_meta( $post_id, Rtac_Registry::META_KB_LANG, $lang );
		} else {
			delete_post_meta( $post_id, Rtac_Registry::META_KB_LANG );
		}
		if ( $pinned ) {
			update_post_meta( $post_id, Rtac_Registry::META_KB_PINNED, 1 );
		} else {
			delete_post_meta( $post_id, Rtac_Registry::META_KB_PINNED );
		}
	}

	/**
	 * Creates a published entry (it then syncs like any page).
	 *
	 * @return int|WP_Error The new post ID.
	 */
	public static function create_entry( string $question, string $answer, string $lang, bool $pinned = false ) {
		$post_id = wp_insert_post(
			array(
				'post_type'    => Rtac_Registry::POST_TYPE_KB,
				'post_status'  => 'publish',
				'post_title'   => sanitize_text_field( $question ),
				'post_content' => wp_kses_post( $answer ),
			),
			true
		);
		if ( ! is_wp_error( $post_id ) ) {
			self::store_meta( (int) $post_id, Rtac_Language::normalize( $lang ), $pinned );
		}
		return $post_id;
	}

	/**
	 * Published pinned entries of one language; an entry without a language
	 * is the site language's.
	 *
	 * @return array<int, array{title:string, content:string, pinned:bool}>
	 */
	public static function pinned_entries( string $lang ): array {
		$lang      = Rtac_Language::normalize( $lang );
		$lang_meta = array(
			'key'   => Rtac_Registry::META_KB_LANG,
			'value' => $lang,
		);
		if ( Rtac_Language::site_default() === $lang ) {
			$lang_meta = array(
				'relation' => 'OR',
				$lang_meta,
				array(
					'key'     => Rtac_Registry::META_KB_LANG,
					'compare' => 'NOT EXISTS',
				),
			);
		}
		$posts = get_posts(
			array(
				'post_type'        => Rtac_Registry::POST_TYPE_KB,
				'post_status'      => 'publish',
				'has_password'     => false,
				'numberposts'      => Rtac_Protocol::MAX_PINNED,
				'orderby'          => array(
					'menu_order' => 'ASC',
					'ID'         => 'ASC',
				),
				'suppress_filters' => true,
				'lang'             => '', // Polylang: do not narrow to the "current" language.
				'meta_query'       => array( // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_query
					'relation' => 'AND',
					array(
						'key'   => Rtac_Registry::META_KB_PINNED,
						'value' => '1',
					),
					$lang_meta,
				),
			)
		);
		$entries = array();
		foreach ( $posts as $post ) {
			$entries[] = array(
				'title'   => Rtac_Document::plain( $post->post_title ),
				'content' => Rtac_Document::render_text( $post ),
				'pinned'  => true,
			);
		}
		return $entries;
	}

	/* ---- list table columns ---- */

	public function filter_columns( array $columns ): array {
		return Rtac_Admin::columns_before_date(
			$columns,
			array(
				'rtac_lang'   => __( 'Language', 'rtac' ),
				'rtac_pinned' => __( 'Pinned', 'rtac' ),
			)
		);
	}

	public function render_column( string $column, int $post_id ): void {
		if ( 'rtac_lang' === $column ) {
			$lang = (string) get_post_meta( $post_id, Rtac_Registry::META_KB_LANG, true );
			echo esc_html( '' !== $lang ? $lang : Rtac_Language::site_default() );
		} elseif ( 'rtac_pinned' === $column ) {
			echo get_post_meta( $post_id, Rtac_Registry::META_KB_PINNED, true ) ? esc_html__( 'Yes', 'rtac' ) : '—';
		}
	}
}
